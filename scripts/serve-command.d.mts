export declare const SERVE_NODE_FLAGS: string[];
export declare function ensureServerBuild(root: string): string;
export declare function serveCommand(root: string): [string, string[]];
