#!/usr/bin/env python3
"""nvcc for kernel files whose k loops tools/sass_reorder.py rewrites: runs nvcc's own steps (as
`nvcc -dryrun -keep` lists them) and, between ptxas and fatbinary, rewrites the kernels of the
sm_90 cubin whose names match REGEX. Everything else is nvcc's: the PTX beside the cubin in the
fatbin, the host code, the object. Writes DEPFILE (make syntax) for the build's header tracking.

Usage: tools/nvcc_reorder.py REGEX DEPFILE LOG [PASS OPTIONS...] -- NVCC ARGS... -c SOURCE -o OBJECT
  LOG: the pass's report (one line a kernel); PASS OPTIONS: tools/sass_reorder.py's options, as
  --no-swap=REGEX. Needs cuobjdump and nvdisasm on PATH (the CUDA toolkit's, or PyPI's
  nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels)."""
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if '--' not in sys.argv or sys.argv.index('--') < 4:
        sys.exit(__doc__)
    end = sys.argv.index('--')
    regex, depfile, log = sys.argv[1:4]
    options, nvcc = sys.argv[4:end], sys.argv[end + 1:]
    i = nvcc.index('-o')
    subprocess.run(nvcc[:i] + nvcc[i + 2:] + ['-M', '-MF', depfile, '-MT', nvcc[i + 1]], check=True,
                   stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix='nvcc_reorder.') as keep:
        steps = subprocess.run(nvcc + ['-dryrun', '-keep', '-keep-dir', keep], capture_output=True, text=True,
                               check=True).stderr
        script, cubins = ['set -e'], []
        for line in steps.splitlines():
            if not line.startswith('#$ '):
                continue
            cmd = line[3:]
            name, _, value = cmd.partition('=')
            if name.isidentifier():  # nvcc's settings (PATH, CICC_PATH, ...), for the steps after
                script.append(f'export {name}={shlex.quote(value.strip())}')
                continue
            script.append(cmd)
            words = shlex.split(cmd)
            if words and os.path.basename(words[0]) == 'ptxas' and '-arch=sm_90' in words:
                cubin = words[words.index('-o') + 1]
                cubins.append(cubin)
                script.append(' '.join(shlex.quote(w) for w in
                                       [sys.executable, os.path.join(HERE, 'sass_reorder.py'), cubin, cubin, regex] + options)
                              + ' >> ' + shlex.quote(log))
        if not cubins:
            sys.exit('nvcc_reorder: no sm_90 cubin among nvcc\'s steps (is sm_90 a target?)')
        open(log, 'w').close()
        subprocess.run(['bash', '-c', '\n'.join(script)], check=True)


if __name__ == '__main__':
    main()
