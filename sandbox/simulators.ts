// The simulators the sandbox starts, by the names `simulator:NAME` references use, in the order its
// log line and the console's Sandbox page list them. Known without loading any of them: lint
// refuses a reference to another name (engine.ts standIns).
export const SIMULATORS = ['eventhub', 'amqp', 'hubvendor', 'idp', 'platform', 'screenvendor', 'achvendor'];
