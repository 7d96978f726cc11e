import { createTRPCRouter } from '../../trpc';
import { addTicketMessageProcedure } from './addTicketMessage';
import { createTicketProcedure } from './createTicket';
import { dashboardGetTicketProcedure } from './dashboardGetTicket';
import { dashboardListTicketsProcedure } from './dashboardListTickets';
import { dashboardReplyTicketProcedure } from './dashboardReplyTicket';
import { deleteDnsProcedure } from './deleteDns';
import { getDnsProcedure } from './getDns';
import { getInstanceInfoProcedure } from './getInstanceInfo';
import { getTicketProcedure } from './getTicket';
import { listAddonEventsProcedure } from './listAddonEvents';
import { listInstancesProcedure } from './listInstances';
import { listTicketsProcedure } from './listTickets';
import { putDnsProcedure } from './putDns';
import { reportInstanceInfoProcedure } from './reportInstanceInfo';
import { retryDnsPublishProcedure } from './retryDnsPublish';
import { setTicketStatusProcedure } from './setTicketStatus';
import { submitAddonEventsProcedure } from './submitAddonEvents';

// Declaration order matters for REST routing (first match wins): static paths before /{id}.
export const supportRouter = createTRPCRouter({
  // Instance key (REST)
  getInstanceInfo: getInstanceInfoProcedure,
  reportInstanceInfo: reportInstanceInfoProcedure,
  getDns: getDnsProcedure,
  putDns: putDnsProcedure,
  deleteDns: deleteDnsProcedure,
  createTicket: createTicketProcedure,
  listTickets: listTicketsProcedure,
  getTicket: getTicketProcedure,
  addTicketMessage: addTicketMessageProcedure,
  submitAddonEvents: submitAddonEventsProcedure,
  // Dashboard (tRPC, user session)
  dashboardListTickets: dashboardListTicketsProcedure,
  dashboardGetTicket: dashboardGetTicketProcedure,
  dashboardReplyTicket: dashboardReplyTicketProcedure,
  setTicketStatus: setTicketStatusProcedure,
  listAddonEvents: listAddonEventsProcedure,
  listInstances: listInstancesProcedure,
  retryDnsPublish: retryDnsPublishProcedure,
});
