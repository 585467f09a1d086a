import { publish, statusMessage } from '../test/payment-inbound/helpers.ts';
await publish(process.argv[2]!, Array.from({ length: 3000 }, () => statusMessage()));
process.exit(0);
