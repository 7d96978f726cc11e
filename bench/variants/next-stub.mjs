/** What server/http/serve.ts gets for `next` in the bench's no-next variant: nothing prepared, every page 404. */
export default function next() {
  return {
    prepare: async () => {},
    getRequestHandler: () => (_req, res) => {
      res.statusCode = 404;
      res.end();
    },
  };
}
