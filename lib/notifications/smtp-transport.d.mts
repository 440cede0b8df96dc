import type SMTPPool from "nodemailer/lib/smtp-pool";

export declare const SMTP_DEFAULTS: Readonly<{
  maxConnections: number;
  maxMessages: number;
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}>;
/** The pool for an SMTP URL: its query's options win over the defaults. */
export declare function smtpPool(smtpUrl: string): SMTPPool;
