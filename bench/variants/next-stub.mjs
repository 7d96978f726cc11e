/** What the production bundles (serve.mjs, pages-thread.mjs) get for `next` in the no-next variant: every page 404. */
export default function next() {
  return {
    prepare: async () => {},
    getRequestHandler: () => (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
  };
}
