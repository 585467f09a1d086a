// rhea, the AMQP 1.0 client, in a module the AMQP source imports when its first route starts: the
// build bundles it into a chunk of its own, shared with the program's AMQP simulator (one copy),
// that loads only then.

import rhea from 'rhea';

export default rhea;
