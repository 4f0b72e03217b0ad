"""The placebench HTML report (scripts/report.py): loading with schema checks, one module per figure
family, and the HTML assembly. Results are data; this package only reads and draws them."""
