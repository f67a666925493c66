"""What this kernel saw and answered: history, transcript and the recording of answers."""
