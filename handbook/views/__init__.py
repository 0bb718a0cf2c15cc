"""Browser views, one module per area: reading, editing, access, accounts, ops."""
