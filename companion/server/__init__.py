"""Flask app: pages, JSON API, server-sent events, pairing, i18n (to come)."""
