"""Every kernel of the project: the benchmark kernels with C reference programs (kernels/README.md;
harness kernels/suite.py), the directed kernels (kernels/directed/) and the one launch-image builder
(kernels/launch.py)."""
