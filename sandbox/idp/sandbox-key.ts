// The sandbox identity provider's fixed signing key. A DEMO key, published in this repository on
// purpose: `engine token --sub alice` (a separate process) and the running sandbox must agree on it.
// Never trust it outside the sandbox; real deployments verify tokens of their own identity provider.

export const SANDBOX_KID = 'sandbox-rs256-1';

export const SANDBOX_PRIVATE_JWK = {
  kty: 'RSA',
  n: 'q77v4rwKOj-ucnkIUdpYayzumrJl7LpUJvTZnRpzUjkNwJnHdBUm7KHT-X1M-YC8nEExIGSpSZu8G2R7Oylv3IFUd0_2M_ojPxD2NStpZYfJOCUWXWEmhP1qkTz7Cns7Dd49GiiGmQ3PUa0zQ61cmwK9XGRRUbx1B9Os-sAL7XUeasgpbgQPrmV2UelHJQb62qVudn3elrBDBGP05GF40pQGXHwaPkqvsD8TH77TUdKJ6p0nDYdxi4E1zLBdZjx68c5687B3O0Wi-wNcms05v4G3VattYZ_rszm9jLWgFvJSxhF_QV8bK2i-QID7r3upV6q1qmEo_EVMxqPxNYfNLw',
  e: 'AQAB',
  d: 'BqR1juPhIC9nvFN6ozIzx3IvIkcleQccPrHem4-ZbgP5FUqW5u7zslg9JHUyENfns48At7Uc9Qgm0zpkjiO3b1eGYEnBhte1HRKdxLp4_5PFkDw8krNks-UNn5aa5DHJVWtG54GX8kh3jO8-QDvuwBIJjkHumtL6n1xfYG1YDycVqJFuAWRHVfJbq6CN5w3gk3CbFoXPnzIjIi5PIjUnlI-pbONrosbqcU-2MSUFWBMPO3Jfkg1WDjwaBpCiEwh1Deec37gCQxJVs2LQIP9hKGdqQgI2Y2YXFyxQ4R8oUA3lHAheGpcrzlrG25b0fLXSLIU-RzzDfIdjttUXMJUXhQ',
  p: '5_f2_3iND6TUR2DePz51XvvdNpp3i_htjMm-bp3XVGijlKaSIFVsP4SY9NnPYvz-NKOPJb0732QGE02kJaEqbnWvIZmISWU_opelokFujz5L86v5bLHkKA2tgzme3gTrvNRxewJGaqSl1qxnKDg9bl4MID96G7vOzRT7eyP47q0',
  q: 'vYnOL-fNKK0stWwOa-C7roCvGN7P9gW8wUlbknwKHkLt8210CclsRymabrPR6w3_wvsqBTB9fldg7gLLO07jropLutKCEcAbb6VGsFGkgCsAMEtJBoh6RzNRdjkHFGclbJJ8tDWtBAoHxiQ0KJnDcDzATpwYMe9iTg-v1PLv8ss',
  dp: '0VDWh6Y_G2uvxYzqXwU8Ie6BqaDu2NXd_JmbBfPV9yvI1_0KhLSwTgyXfPICCh-iPtuL8xDzsttuBAMeaHoqcKwu0NHawefj6RKP-n6yhf0_yexX0LYg2-ejt3LKISstkSHeGJJv-hECOFkvaIJ_JFUm-f5tcBMjQ7l4R6CpIq0',
  dq: 'jcRUR3qu9jzJUw12n_PhDX3M-eI2VEMoUr5G0wMaIlZXWptEjslsxrF0hFbVrWW0JqfsXyNMykIbCwtl7X9tRzDDwgIQLayuGMzbWahHTWJcasL05QERzM2yoaW4COe5k0LiKXx4Y6wI8ohDxxZzmzClembApiDyO4b6MmJfXQ8',
  qi: 'XSDH0Q1qJG6RhCNrUJBMLAOQQkJL5kludpdhZwW3OnK3d7zVQf0C5YewIo9vJMpu2v55_LjOs95I2VM_fhmKJ9eGUgg2viiMjFsy2YvKXmuq2Et5a8CluhTHk1D_c5snvgFI7gaAIqME2B-58las7kMKJrG6j0xMALKqWHWPKnw',
} as const;

/** The issuer of sandbox tokens (not a routable host; discovery runs on the sandbox port). */
export const SANDBOX_ISSUER = 'https://idp.sandbox.invalid';
export const SANDBOX_AUDIENCE = 'platform-agent-gateway';
