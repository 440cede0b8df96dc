export declare const E2E: {
  appPort: number;
  appUrl: string;
  issuerPort: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
  dataDir: string;
  /** The admin CLI bundled for this run (e2e/global-setup.ts). */
  adminCliBundle: string;
};
