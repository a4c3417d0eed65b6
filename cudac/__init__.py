"""cudac: a CUDA-C subset compiler for the SIMT GPU (docs/kernels-c.md).

from cudac import compile_file, compile_source, CompileError
k = compile_file("kernel.cu")      # k.asm (text for spec/asm.py), k.program.image, k.params
"""

from cudac.compiler import Compiled, compile_file, compile_source
from cudac.errors import CompileError

__all__ = ["CompileError", "Compiled", "compile_file", "compile_source"]
