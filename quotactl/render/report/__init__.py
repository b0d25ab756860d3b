"""Self-contained HTML reports: plain data in (charts and tables), one offline file out.

``model`` holds the data a report is made of, ``downsample`` and ``frame`` thin long series
onto one time axis while keeping their extremes, ``charts`` draws a chart as static SVG
(pygal), ``tables`` takes the text report's tables, ``document`` writes the page. ``whatif``
builds the report of ``simulate``.
"""
