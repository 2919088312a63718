"""What every request passes through, below the services that publish into it and the views
that answer: the proxies' headers and Secure cookies, the browser hardening headers, hostile
JSON bodies, the refusals before a view, the public pages' ETags and kept bodies, and the
address phones get in their QR codes."""
