// The few NIO value types that appear in HTTPKit's public API, re-exported so that the product
// can build requests and responses without importing NIO modules itself.
@_exported import struct NIOCore.ByteBuffer
@_exported import struct NIOCore.ByteBufferAllocator
@_exported import enum NIOCore.SocketAddress
@_exported import struct NIOHTTP1.HTTPHeaders
@_exported import enum NIOHTTP1.HTTPMethod
@_exported import enum NIOHTTP1.HTTPResponseStatus
@_exported import struct NIOHTTP1.HTTPVersion
