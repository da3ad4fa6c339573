"""The minimal Django site the project's write path is measured against (issue 22): one model, one
view that UPDATEs one row, on the project's own settings (database, sessions, middleware), served
the way `make run` serves the project. Not part of the product: `make bench` starts it beside it."""
