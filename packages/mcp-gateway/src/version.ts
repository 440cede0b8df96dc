/** Reported as the gateway's serverInfo.version (keep equal to package.json). */
export const GATEWAY_VERSION = "0.1.0";
