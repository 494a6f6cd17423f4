"""Network operating systems, one package each: its Platform record, commands, detection and normalizers."""
