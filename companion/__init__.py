"""companion: a Raspberry Pi table companion for El Grande and Carolus Magnus."""

__version__ = "0.1.0"
