import { Type, type Static } from '@sinclair/typebox';
import { AssetFileSchema } from './asset.js';
import { Strict, Timestamp, Uuid, rule } from './common.js';

export const Filename = Type.String({
  minLength: 1,
  maxLength: 255,
  // No slash, backslash or control character; no leading dot.
  pattern: '^[^./\\\\\\u0000-\\u001f\\u007f][^/\\\\\\u0000-\\u001f\\u007f]*$',
  description: 'The file name: 1 to 255 characters, no / or \\ or control characters, not starting with a dot.',
  [rule]: 'a file name of 1 to 255 characters without / or \\ or control characters, not starting with a dot',
});

/** A size in bytes a client declares: a whole number a JSON number holds exactly. */
const DeclaredSize = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const UploadUrlBody = Strict({
  filename: Filename,
  file_size: Type.Optional(
    DeclaredSize("The size of the file to upload, in bytes, when known: a size over the limit or the account's remaining quota is refused at once (413 naming file_size), and the URL then takes at most this many bytes (docs/uploads.md)."),
  ),
});
export type UploadUrlBody = Static<typeof UploadUrlBody>;

const signedUrlFields = {
  signed_url: Type.String({
    description:
      'PUT the bytes here, with their Content-Type and no Authorization header. On S3 one PUT takes at most 5 GiB: larger files go to upload_url (a declared file_size over 5 GiB gets a signed_url that answers 413 naming upload_url).',
  }),
  storage_path: Type.String({ description: 'Where the bytes are kept; a file is confirmed with it (confirm-file), an image with public_url (confirm-image).' }),
  expires_at: Timestamp('The signed URL stops working at this time.'),
  method: Type.Literal('PUT'),
  upload_url: Type.String({
    description: 'The same upload as a tus 1.0.0 resource (core, creation, termination, expiration, checksum with sha256), for resumable uploads: signed and bounded like signed_url, no Authorization header. Every store takes it (on S3 as a multipart upload, continued by any instance); the way for files over 5 GiB on S3 (docs/uploads.md).',
  }),
};

export const UploadUrlSchema = Strict(signedUrlFields, { $id: 'UploadUrl' });
export type UploadUrl = Static<typeof UploadUrlSchema>;

export const ImageUploadUrlSchema = Strict(
  { ...signedUrlFields, public_url: Type.String({ description: 'Send this to confirm-image after the PUT.' }) },
  { $id: 'ImageUploadUrl' },
);
export type ImageUploadUrl = Static<typeof ImageUploadUrlSchema>;

export const ConfirmFileBody = Strict({
  storage_path: Type.String({ minLength: 1, maxLength: 1024, description: 'As returned by upload-url.' }),
  file_size: Type.Integer({ minimum: 0, description: 'The size of the uploaded file in bytes.' }),
  sha256: Type.Optional(
    Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: 'The SHA-256 of the file as the seller computed it (64 lower-case hex): a mismatch with what the server computed of the bytes it received is 422 CHECKSUM_MISMATCH, and nothing is confirmed.',
      [rule]: '64 lower-case hexadecimal characters (a SHA-256 digest)',
    }),
  ),
});
export type ConfirmFileBody = Static<typeof ConfirmFileBody>;

export const ConfirmFileResultSchema = Strict({ success: Type.Literal(true), file: AssetFileSchema }, { $id: 'ConfirmFileResult' });

export const ConfirmImageBody = Strict({
  public_url: Type.String({ minLength: 1, maxLength: 2048, description: 'As returned by images/upload-url.' }),
});
export type ConfirmImageBody = Static<typeof ConfirmImageBody>;

export const ConfirmImageResultSchema = Strict(
  {
    success: Type.Literal(true),
    image_id: Uuid(),
    id: Uuid('The same value as image_id.'),
    is_primary: Type.Boolean({ description: 'True for the first image of a listing, which is its thumbnail.' }),
    public_url: Type.String(),
    storage_path: Type.String(),
    position: Type.Integer({ minimum: 0 }),
  },
  { $id: 'ConfirmImageResult' },
);

export const SubmitResultSchema = Strict(
  {
    success: Type.Literal(true),
    id: Uuid(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('scheduled'), Type.Literal('published')], {
      description: 'published only where the marketplace approves submissions automatically.',
    }),
    scheduled_publish_at: Type.Union([Timestamp(), Type.Null()]),
  },
  { $id: 'SubmitResult' },
);
