import { defineResource } from './define.ts'
import { boolean, list, text, timestamp } from './fields.ts'

/**
 * An organization's OAuth clients (docs/oauth.md, "OAuth clients as a resource"): the applications
 * that may ask its users, or act themselves, for tokens. The rows are those `api-server client
 * create` makes. The secret of a confidential client is never a field: it shows once, in the
 * answer to the create and to `rotate-secret`, and only its hash is kept. The defaults of
 * `grantTypes` (by `public`) and `scopes` (every scope of the schema) are filled by the server's
 * hook, since they depend on another value and on the schema in force.
 */
export const oauthClients = defineResource({
  name: 'oauth-clients',
  singular: 'oauthClient',
  prefix: 'clt',
  service: true,
  adminOnly: true,
  // `api-server client create|revoke|update` change these rows without an event.
  changedWithoutEvents: true,
  description: "The organization's OAuth clients: applications that may ask for tokens.",
  fields: {
    name: text({ max: 200, sort: true, search: true }),
    public: boolean({
      default: false,
      filter: 'eq',
      description: 'A public client (a browser or native app) has no secret; set on create only.',
    }),
    grantTypes: list({
      required: false,
      maxItems: 4,
      description:
        'The grants it may use; default: authorization_code and refresh_token for a public client, client_credentials otherwise.',
    }),
    redirectUris: list({
      default: [],
      maxItems: 20,
      maxLength: 2000,
      description: 'Where the authorization code grant may send the browser back; required for it.',
    }),
    scopes: list({
      required: false,
      maxItems: 1000,
      description: 'The scopes it may ask for; default: every scope of the schema.',
    }),
    revokedAt: timestamp({
      readOnly: true,
      nullable: true,
      filter: 'range',
      description: 'When it was revoked (the action revoke); null while it is live.',
    }),
  },
  revealed: {
    secret:
      'The client secret (cs_…) of a confidential client: in the answer to the create and to rotate-secret only',
  },
  actions: {
    'rotate-secret': {
      past: 'secret_rotated',
      summary: 'Make a new client secret',
      effect:
        'Makes a new secret for a confidential client and answers it once, as secret; the old one stops working at once. 409 for a public client.',
    },
    revoke: {
      past: 'revoked',
      summary: 'Revoke the client and end its tokens',
      effect:
        'Sets revokedAt; every token of the client (the access and refresh tokens of its users, its client-credentials tokens) stops working at once, and it gets no new ones. 409 when it is revoked already.',
    },
  },
})
