"""The wire: AWS's rest-json format for Batch, requests checked against botocore's model, and
``local serve's HTTP/1.1 server."""
