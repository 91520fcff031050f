/// HTTPKit: the HTTP/1.1 server on SwiftNIO. It knows nothing of health data.
enum HTTPKitModule {}
