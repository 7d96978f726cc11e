/** The resolve hook of the variants' `--import` files: the bare specifier `next` becomes the variant's stub. */
let stub;

export function initialize(data) {
  stub = data.stub;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'next') return { url: stub, shortCircuit: true };
  return nextResolve(specifier, context);
}
