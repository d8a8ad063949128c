/**
 * Example request bodies, one per operation that takes a body. The OpenAPI document shows them,
 * and the test fixtures build their requests from them, so every example is known to work.
 */
export const examples = {
  createAsset: {
    title: 'Castle Pack',
    slug: 'castle-pack',
    description: 'Forty modular castle pieces.',
    pricing_type: 'fixed',
    price: 4.99,
    tags: ['castle', 'medieval'],
    visibility: 'public',
  },
  updateAsset: { title: 'Castle Pack Deluxe', price: 5.99 },
  createAssetBatch: { assets: [{ title: 'Castle Pack', slug: 'castle-pack' }, { title: 'Tower Pack', slug: 'tower-pack' }] },
  createAssetUploadUrl: { filename: 'castle-pack.zip' },
  confirmAssetFile: { storage_path: 'assets/0f8fad5b-d9cb-469f-a165-70867728950e/files/7c9e6679-7425-40de-944b-e07fc1f90ae7/castle-pack.zip', file_size: 1048576 },
  createImageUploadUrl: { filename: 'cover.webp' },
  confirmAssetImage: { public_url: 'https://market.example/api/v1/blobs/assets/0f8fad5b-d9cb-469f-a165-70867728950e/images/1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed/cover.webp' },
  createWebhookEndpoint: {
    url: 'https://hooks.castle.example/marketkit',
    event_types: ['asset.published', 'asset.rejected', 'asset.changes_requested'],
    description: 'Review outcomes, to our build server',
  },
  updateWebhookEndpoint: { event_types: ['*'], enabled: true },
  updateProfile: { display_name: 'Castle Works', bio: 'Modular kits for builders.', website: 'https://castle.example', socials: { github: 'castle-works' } },
} as const;
