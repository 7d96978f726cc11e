/** Small operational pieces shared by the Hub and Core. */
export { ERROR_CODES, ERROR_STATUS, withHeader, type ErrorBody, type ErrorCode, type ErrorIssue } from './errors';
export {
  describeIssues,
  isValidationError,
  ServiceError,
  TransportError,
  validationError,
  WIRE_CODE,
  wireIssues,
  type IssueLike,
  type ServiceErrorCode,
  type ServiceErrorOptions,
} from './serviceError';
export {
  DATABASE_UNAVAILABLE_MESSAGE,
  errorAnswer,
  errorBody,
  INTERNAL_MESSAGE,
  RETRY_AFTER_SECONDS,
  toWireError,
  type ErrorAnswer,
  type ErrorHooks,
  type WireError,
} from './errorAnswer';
export { isDatabaseUnavailable } from './outage';
export { pagination, type PageRequest, type Pagination } from './pagination';
export { parseAddressList } from './addresses';
export {
  addressBucket,
  clientAddress,
  forwardedChain,
  normalizeIp,
  parseForwardedEntry,
  type IpAddress,
} from './clientAddress';
export { findUnstorableIssue, MAX_INPUT_DEPTH, unstorable, type UnstorableIssue } from './unstorable';
