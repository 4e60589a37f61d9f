"""The Transformer: its shape (config.py), attention (attention.py), layers and the model (layers.py,
transformer.py), the typed decoder cache (cache.py), dropout masks (dropout.py) and the matmul FLOPs of a training
step (flops.py)."""
