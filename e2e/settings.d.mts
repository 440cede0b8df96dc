export declare const E2E: {
  appPort: number;
  appUrl: string;
  issuerPort: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
  dataDir: string;
};
