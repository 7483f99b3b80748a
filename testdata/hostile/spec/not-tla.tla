<html><body>404</body></html>
