import { contractMismatch, type RequestFunction, type RequestOptions, send } from '../http/request.js';
import { validateRequest } from '../http/validate.js';
import {
  type SignupRequest,
  type SignupResponse,
  signupRequestSchema,
  signupResponseSchema,
} from '../schemas/auth.js';

export class Auth {
  readonly #request: RequestFunction;
  constructor(request: RequestFunction) {
    this.#request = request;
  }

  /** `POST /api/auth/signup`: creates an account and signs it in. Needs no API key. */
  async signup(body: SignupRequest, options?: RequestOptions): Promise<SignupResponse> {
    const valid = validateRequest('auth.signup', signupRequestSchema, body);
    const path = '/api/auth/signup';
    const response = await send(
      this.#request,
      { method: 'POST', path, body: valid, idempotent: false, authenticated: false },
      options,
    );
    const parsed = signupResponseSchema.safeParse(response.body);
    if (parsed.success) return parsed.data;
    // Not a session endpoint, and its tokens are what the caller came for: without them the signup can't
    // be used, so (unlike the session POSTs) a body without them is an error. Retrying is safe here: a
    // second signup of the same email gets a 400, never a second account.
    throw contractMismatch(
      response,
      'POST',
      path,
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`),
    );
  }
}
