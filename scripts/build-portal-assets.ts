/**
 * Part of `npm run build`: bundles and minifies the portal's script
 * (portal/static/portal.js, passkeys.js and @simplewebauthn/browser) and its
 * style sheet into portal/build/ under content-hashed names, with the
 * manifest the portal reads at start (src/hosts/portal/assets/).
 */
import { ASSET_BUILD_DIR, bundlePortalAssets, sourceFingerprint, writeBuiltAssets } from '../src/hosts/portal/assets/portal-assets.js';

// Taken before bundling: sources edited meanwhile make this build stale, never a stale build current.
const fingerprint = sourceFingerprint();
const assets = await bundlePortalAssets();
writeBuiltAssets(ASSET_BUILD_DIR, assets, fingerprint);
process.stdout.write(`wrote ${assets.script} and ${assets.style} to portal/build/\n`);
