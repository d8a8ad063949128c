/**
 * The tus 1.0.0 surface (docs/uploads.md, "Resumable uploads"): every issued upload is also a tus
 * upload resource at `/api/v1/uploads/{storage_path}?expires=...&max=...&signature=...`, the
 * `upload_url` upload-url answers. Core, creation (a POST to the resource itself with Upload-Length;
 * not needed when upload-url was given file_size), termination, expiration and checksum (sha256).
 * Like signed_url it carries no Authorization header: its signature is the grant.
 */
import { ApiError } from '../errors.js';
import { storagePathOf, type UploadSigner } from '../operations/blob-urls.js';
import type { Ports, Settings } from '../operations/context.js';
import type { UploadPorts } from '../operations/upload-lifecycle.js';
import type { IssuedUploadRecord } from '../ports/records.js';
import type { UploadStateRecord } from '../ports/upload-state.js';
import { errorResponse, type Exchange, type Surface } from '../pipeline/frame.js';
import type { CoreResponse } from '../pipeline/request.js';
import { appendToUpload, createResumable, resumableStore, terminateUpload } from '../operations/resumable-upload.js';
import { tusPrefix, tusSignedPath } from '../operations/tus-urls.js';

const tusVersion = '1.0.0';
const extensions = 'creation,termination,expiration,checksum';

const httpDate = (iso: string) => new Date(iso).toUTCString();

const base = { 'tus-resumable': tusVersion };

/** What the tus surface is given: the ports, the settings, the URL signer, and who holds appends (this instance). */
interface TusDeps {
  ports: UploadPorts & Pick<Ports, 'metrics'>;
  settings: Settings;
  signer: UploadSigner;
  holder: string;
}

export function tusSurface(deps: TusDeps): Surface {
  return {
    serves: (path) => path.startsWith(tusPrefix),
    serve: (exchange) => serveTus(deps, exchange),
    // Browser pages of the configured CORS origins may upload, as they may PUT to signed_url.
    cors: true,
    failure(error, exchange) {
      const answer = errorResponse(error, exchange);
      answer.headers['tus-resumable'] = tusVersion;
      return answer;
    },
  };
}

/** The upload a signed tus URL names; 403 for a bad signature, 410 once expired or gone. */
async function uploadOf({ ports, signer }: TusDeps, exchange: Exchange): Promise<{ upload: IssuedUploadRecord; maxBytes: number }> {
  const storagePath = storagePathOf(exchange.path.slice(tusPrefix.length));
  if (!storagePath) throw new ApiError('NOT_FOUND', 'No such upload.');
  const { check, maxBytes } = await signer.verify(tusSignedPath(storagePath), new URLSearchParams(exchange.query), ports.clock.now());
  if (check === 'invalid') throw new ApiError('FORBIDDEN', 'This upload URL is not valid: its signature does not match.');
  if (check === 'expired') throw new ApiError('UPLOAD_GONE', 'This upload URL has expired; ask upload-url for a new one.');
  const upload = await ports.storage.getUpload(storagePath);
  if (!upload) throw new ApiError('NOT_FOUND', 'No such upload: it was terminated, or its listing deleted.');
  if (upload.state === 'confirmed') throw new ApiError('UPLOAD_GONE', 'This upload was confirmed; it takes no more bytes.');
  return { upload, maxBytes };
}

const offsetHeaders = (state: UploadStateRecord, upload: IssuedUploadRecord) => ({
  ...base,
  'upload-offset': String(state.offset),
  ...(state.length !== null ? { 'upload-length': String(state.length) } : {}),
  'upload-expires': httpDate(upload.expires_at),
  'cache-control': 'no-store',
});

async function serveTus(deps: TusDeps, exchange: Exchange): Promise<CoreResponse> {
  const { ports, settings, holder } = deps;
  const { request } = exchange;
  if (request.method === 'OPTIONS') {
    return { status: 204, headers: { ...base, 'tus-version': tusVersion, 'tus-extension': extensions, 'tus-max-size': String(settings.maxFileBytes), 'tus-checksum-algorithm': 'sha256' }, body: null };
  }
  if (request.header('tus-resumable') !== tusVersion) throw new ApiError('TUS_VERSION_UNSUPPORTED', undefined, { headers: { 'tus-version': tusVersion } });
  resumableStore(ports);
  const { upload, maxBytes } = await uploadOf(deps, exchange);
  switch (request.method) {
    case 'GET': {
      // HEAD, as the frame hands it on (the same answer without a body).
      const state = await ports.uploadStates.get(upload.storage_path);
      if (!state) throw new ApiError('NOT_FOUND', 'This upload has not been created: POST to it with Upload-Length first.');
      return { status: 200, headers: offsetHeaders(state, upload), body: null };
    }
    case 'POST': {
      const length = request.header('upload-length');
      if (!length || !/^\d{1,16}$/.test(length)) throw new ApiError('INVALID_INPUT', 'Upload-Length must be the upload\'s size in bytes (deferred lengths are not supported).');
      const state = await createResumable(ports, settings, upload, Number(length), maxBytes);
      return { status: 201, headers: { ...offsetHeaders(state, upload), location: `${exchange.siteUrl}${exchange.path}?${exchange.query}` }, body: null };
    }
    case 'PATCH':
      return patchUpload(deps, exchange, upload);
    case 'DELETE':
      await terminateUpload(ports, settings, upload, holder);
      return { status: 204, headers: { ...base }, body: null };
    default:
      throw new ApiError('METHOD_NOT_ALLOWED', 'Use HEAD, POST, PATCH, DELETE or OPTIONS here.', { headers: { allow: 'HEAD, POST, PATCH, DELETE, OPTIONS' } });
  }
}

/** A PATCH: the bytes appended at the offset HEAD reported, checked against Upload-Checksum when sent. */
async function patchUpload({ ports, settings, holder }: TusDeps, { request }: Exchange, upload: IssuedUploadRecord): Promise<CoreResponse> {
  if (request.header('content-type') !== 'application/offset+octet-stream') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'A PATCH to an upload sends its bytes as application/offset+octet-stream.');
  }
  const offset = request.header('upload-offset');
  if (!offset || !/^\d{1,16}$/.test(offset)) throw new ApiError('INVALID_INPUT', 'Upload-Offset must be the offset HEAD reports.');
  const checksum = request.header('upload-checksum');
  const [algorithm, digest] = checksum?.split(' ') ?? [];
  if (checksum !== undefined && (algorithm !== 'sha256' || !digest)) throw new ApiError('INVALID_INPUT', 'Upload-Checksum must be "sha256 <base64 digest>" (the only algorithm served).');
  ports.metrics?.uploadsInProgress.inc();
  const declared = request.header('content-length');
  const declaredLength = declared !== undefined && /^\d{1,16}$/.test(declared) ? Number(declared) : null;
  const state = await appendToUpload(ports, settings, upload, { offset: Number(offset), body: request.body ?? (async function* () {})(), chunkChecksum: digest ?? null, declaredLength, holder }).finally(() =>
    ports.metrics?.uploadsInProgress.dec(),
  );
  ports.metrics?.uploadBytes.inc(state.offset - Number(offset));
  return { status: 204, headers: offsetHeaders(state, upload), body: null };
}
