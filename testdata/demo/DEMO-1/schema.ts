/** @internal */
export const LATEST_PROTOCOL_VERSION = "DEMO-1";
/** @internal */
export const JSONRPC_VERSION = "2.0";
