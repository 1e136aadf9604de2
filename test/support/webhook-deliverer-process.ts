import { configure } from '../../shared/config.ts';
import { deliverToEndpoint } from '../../shared/webhooks/deliverer.ts';

/**
 * A deliverer in a process of its own, for the crash test: it tries the deliveries its argument names
 * (a DeliveryRequest as JSON) and says `done` when it is through, unless it is killed first.
 */
configure(process.env);
await deliverToEndpoint(JSON.parse(process.argv[2] as string));
console.log('done');
