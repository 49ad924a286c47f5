"""Exception classes; `base` defines them, `captured` keeps PySpark's older import path."""
