/** The resolve hook of no-next.mjs: the bare specifier `next` becomes next-stub.mjs. */
const stub = new URL('./next-stub.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'next') return { url: stub, shortCircuit: true };
  return nextResolve(specifier, context);
}
