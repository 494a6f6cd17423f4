"""The cumulus platform."""
