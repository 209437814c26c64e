// REST for checkout sessions and the hosted page's payments: each route runs its operation
// (_shared/checkout/operations.ts, payments.ts) as the caller; a client-secret route's caller is anonymous.
import * as checkout from "../../_shared/checkout/operations.ts";
import * as payments from "../../_shared/checkout/payments.ts";
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as paymentRoutes from "./payments.routes.ts";
import * as routes from "./routes.ts";

const clientSecret = (header: { [routes.CLIENT_SECRET_HEADER]?: string }) => header[routes.CLIENT_SECRET_HEADER];

export const checkoutEndpoints = [
  endpoint(routes.createCheckoutSession, checkout.createCheckoutSession, ({ json }) => json),
  endpoint(routes.getClientCheckoutSession, checkout.getClientCheckoutSession, ({ param, header }) =>
    ({ checkoutId: param.checkoutId, clientSecret: clientSecret(header) })),
  endpoint(routes.retryCheckoutWebhook, checkout.retryCheckoutWebhook, ({ param }) => param),
  endpoint(routes.listCheckoutWebhookDeliveries, checkout.listWebhookDeliveries, ({ param }) => param),
  endpoint(paymentRoutes.preparePayment, payments.preparePayment, ({ param, header, json }) =>
    ({ checkoutId: param.checkoutId, clientSecret: clientSecret(header), payment: json })),
  endpoint(paymentRoutes.reportPaymentTransaction, payments.reportPaymentTransaction, ({ param, header, json }) =>
    ({ checkoutId: param.checkoutId, clientSecret: clientSecret(header), attemptId: param.attemptId, txHash: json.txHash })),
  endpoint(paymentRoutes.confirmPayment, payments.confirmPayment, ({ param, header, json }) =>
    ({ checkoutId: param.checkoutId, clientSecret: clientSecret(header), txHash: json.txHash })),
];
