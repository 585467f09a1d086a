// The environmental keys a deployment of the shipped connectors sets (docs/configuration.md lists
// them), with made-up values of the right shape, as process environment variables: with them the
// shipped environments lint clean, without them `engine lint --env` and `engine run` name each once.

export const DEPLOYMENT_KEYS: Record<string, string> = {
  HUBVENDOR_BASE_URL: 'https://hub.example.test',
  HUBVENDOR_AMQP_URL: 'amqps://mq.example.test:5671',
  HUBVENDOR_AMQP_QUEUE_NAME: 'payment-status',
  HUBVENDOR_AMQP_USERNAME: 'engine',
  HUBVENDOR_AMQP_PASSWORD: 'amqp-password-for-tests',
  SCREENVENDOR_BASE_URL: 'https://screening.example.test',
  SCREENVENDOR_API_KEY: 'screening-api-key-for-tests',
  SCREENVENDOR_WEBHOOK_SECRET: 'whsec_c2NyZWVuaW5nLXdlYmhvb2stc2VjcmV0LWZvci10ZXN0cw==',
  ACHVENDOR_BASE_URL: 'https://ach.example.test',
  ACHVENDOR_CLIENT_KEY: 'ach-client-key-for-tests',
  ACHVENDOR_WEBHOOK_SECRET: 'whsec_YWNoLXdlYmhvb2stc2VjcmV0LWZvci10ZXN0cw==',
  ACHVENDOR_ROUTING_NUMBER: '021000021',
  GATEWAY_JWT_ISSUER: 'https://idp.example.test',
  GATEWAY_JWT_AUDIENCE: 'platform-agent-gateway',
  GATEWAY_OIDC_DISCOVERY_URL: 'https://idp.example.test/.well-known/openid-configuration',
  PLATFORM_BACKEND_URL: 'https://platform.example.test',
};
