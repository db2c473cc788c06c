import { z } from 'zod';

export const signupRequestSchema = z.object({
  email: z.email({ error: 'must be a valid email address' }),
  password: z.string({ error: 'is required and must be a string' }).min(6, 'must be at least 6 characters'),
  displayName: z.string({ error: 'must be a string' }).optional(),
});
export type SignupRequest = z.input<typeof signupRequestSchema>;

export const signupResponseSchema = z.looseObject({
  user: z.looseObject({
    uid: z.string(),
    email: z.string(),
    displayName: z.string().nullable().optional(),
    photoURL: z.string().nullable().optional(),
    emailVerified: z.boolean().optional(),
  }),
  idToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.union([z.string(), z.number()]).transform(String),
});
export type SignupResponse = z.output<typeof signupResponseSchema>;
