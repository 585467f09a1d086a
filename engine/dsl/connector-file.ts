// The file name of a folder's connector document (clients.ts): `connector.yaml`. A folder is
// read whatever the name of its YAML files (a `clients:` key makes one a connector document), but
// a route given alone finds the document of its folder, and the client templates above it, by this
// name. The name it had before, `clients.yaml`, is still read, with a warning to rename it; a
// folder with both says the same thing twice, which is an error.

import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../core/diagnostics.ts';

const CONNECTOR_FILE = 'connector.yaml';
/** the former name, still read */
const OLD_CONNECTOR_FILE = 'clients.yaml';

/** The connector documents of a folder a route there sees, by the names they may have. */
export function connectorFilesIn(dir: string): string[] {
  return [CONNECTOR_FILE, OLD_CONNECTOR_FILE].map((n) => join(dir, n)).filter((f) => existsSync(f));
}

/** What the name of a `clients:` document says: nothing, a warning to rename it, or that its folder has both. */
export function connectorFileDiagnostics(file: string): Diagnostic[] {
  if (basename(file) !== OLD_CONNECTOR_FILE) return [];
  const at = { file, line: 1, col: 1 };
  if (existsSync(join(dirname(file), CONNECTOR_FILE))) {
    return [
      {
        ...at,
        message: `${OLD_CONNECTOR_FILE} and ${CONNECTOR_FILE} are both connector documents of this folder: move what this one says into ${CONNECTOR_FILE} and remove it`,
      },
    ];
  }
  return [
    {
      ...at,
      severity: 'warning',
      message: `${OLD_CONNECTOR_FILE} is read as the connector document; rename it ${CONNECTOR_FILE}`,
    },
  ];
}
