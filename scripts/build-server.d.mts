export declare const TARGETS: Record<
  'hub' | 'core' | 'hub-cli' | 'edge-process' | 'hub-process',
  { entry: string; outfile: string; test?: boolean }
>;
export declare function isStale(name: keyof typeof TARGETS): boolean;
export declare function build(name: keyof typeof TARGETS): Promise<string>;
export declare function ensureBuilt(name: keyof typeof TARGETS): Promise<string>;
