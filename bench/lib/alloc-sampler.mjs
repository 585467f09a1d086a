// Preload (`node --import bench/lib/alloc-sampler.mjs ...`): V8's sampling heap profiler between
// two SIGUSR2, counting every allocation, collected ones too (the default profile keeps only what
// is still alive), written as JSON to $ALLOC_OUT. Plain JavaScript: it loads before tsx does.
import inspector from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new inspector.Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.enable');
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return;
  }
  session.post('HeapProfiler.stopSampling', (err, r) => {
    writeFileSync(process.env.ALLOC_OUT, JSON.stringify(err ? { error: String(err) } : r.profile));
  });
});
