"""The shipped policies (ONNX), installed with the package."""
