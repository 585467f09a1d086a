import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--env', 'sandbox', '--port', '0'], { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
child.stdout!.on('data', (d) => { out += d; console.log('OUT', String(d).slice(0, 100)); });
child.stderr!.on('data', (d) => { console.log('ERR', String(d).slice(0, 300)); });
child.on('exit', (c) => console.log('exit', c));
setTimeout(() => { child.kill('SIGTERM'); }, 6000);
