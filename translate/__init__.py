"""translate: a French-to-English Transformer trainer for studying positional encodings."""
