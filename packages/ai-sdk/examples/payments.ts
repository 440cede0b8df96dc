// Stand-in for the README example's own payment code: it records each refund
// so the test can see exactly what ran, and with which arguments.
export const refunds: Array<{ paymentId: string; amountCents: number }> = [];

export async function refundPayment(paymentId: string, amountCents: number) {
  refunds.push({ paymentId, amountCents });
  return { refundId: `re_${refunds.length}`, paymentId, amountCents };
}
