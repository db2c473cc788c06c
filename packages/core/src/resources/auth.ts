import type { RequestOptions, Transport } from '../core/transport.js';
import { validateRequest } from '../core/validate.js';
import {
  type SignupRequest,
  type SignupResponse,
  signupRequestSchema,
  signupResponseSchema,
} from '../schemas/auth.js';

export class Auth {
  constructor(readonly transport: Transport) {}

  /** `POST /api/auth/signup`: creates an account and signs it in. Needs no API key. */
  async signup(body: SignupRequest, options?: RequestOptions): Promise<SignupResponse> {
    const valid = validateRequest('auth.signup', signupRequestSchema, body);
    return this.transport.request(
      {
        method: 'POST',
        path: '/api/auth/signup',
        body: valid,
        idempotent: false,
        authenticated: false,
        options,
      },
      signupResponseSchema,
    );
  }
}
