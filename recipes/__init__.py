"""Built-in recipes, runnable by name: ``passman run NAME app.c``."""
