// OpenSSL's libcrypto (Debian's libssl-dev): HMAC and the constant-time compare, nothing else.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
