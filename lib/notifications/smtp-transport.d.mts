import type SMTPPool from "nodemailer/lib/smtp-pool";

/** The pool for an SMTP URL: its query's options win over the defaults. */
export declare function smtpPool(smtpUrl: string): SMTPPool;
