/**
 * What acnode says it is, in one place: komodod 0.9.0's numbers (clientversion.h CLIENT_VERSION,
 * rpc/misc.cpp KOMODO_VERSION), which getinfo and getnetworkinfo report, and a user agent of its
 * own that peers see in the version message and getnetworkinfo's `subversion`.
 */
export const CLIENT_VERSION = 90000;
export const KOMODO_VERSION = '0.9.0';
export const SUBVERSION = '/acnode:0.1.0/';
