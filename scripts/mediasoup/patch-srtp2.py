"""Port mediasoup's SrtpSession from the libsrtp3 API to Debian's libsrtp2.

mediasoup 3.27 bundles a libsrtp3 beta that meson would download; offline we
link Debian's libsrtp2 instead, whose policy and protect calls differ.
Usage: patch-srtp2.py WORKER_DIR (idempotent: the caller checks the marker).
"""
import sys, re
wd = sys.argv[1]
p = f"{wd}/src/RTC/SrtpSession.cpp"
s = open(p).read()
a = s.index("\t\t// Create the policy object.\n")
b = s.index("\tSrtpSession::~SrtpSession()")
ctor = r'''		// libsrtp2 (Debian libsrtp2-dev) compatible policy setup.
		srtp_policy_t policy; // NOLINT(cppcoreguidelines-pro-type-member-init)

		std::memset(std::addressof(policy), 0, sizeof(srtp_policy_t));

		srtp_err_status_t err =
		  srtp_crypto_policy_set_from_profile_for_rtp(std::addressof(policy.rtp), profile);

		if (DepLibSRTP::IsError(err))
		{
			MS_THROW_ERROR(
			  "srtp_crypto_policy_set_from_profile_for_rtp() failed: %s",
			  DepLibSRTP::GetErrorString(err).c_str());
		}

		err = srtp_crypto_policy_set_from_profile_for_rtcp(std::addressof(policy.rtcp), profile);

		if (DepLibSRTP::IsError(err))
		{
			MS_THROW_ERROR(
			  "srtp_crypto_policy_set_from_profile_for_rtcp() failed: %s",
			  DepLibSRTP::GetErrorString(err).c_str());
		}

		switch (type)
		{
			case Type::INBOUND:
			{
				policy.ssrc.type = ssrc_any_inbound;

				break;
			}

			case Type::OUTBOUND:
			{
				policy.ssrc.type = ssrc_any_outbound;

				break;
			}
		}

		policy.ssrc.value = 0;

		const size_t masterKeyLen  = srtp_profile_get_master_key_length(profile);
		const size_t masterSaltLen = srtp_profile_get_master_salt_length(profile);

		MS_ASSERT(
		  keyLen == masterKeyLen + masterSaltLen,
		  "given keyLen does not match profile master key + salt length");

		// libsrtp2 expects the concatenated key+salt buffer.
		policy.key = key;
		// Required for sending RTP retransmission without RTX.
		policy.allow_repeat_tx = 1;
		policy.window_size     = 1024;
		policy.next            = nullptr;

		err = srtp_create(std::addressof(this->session), std::addressof(policy));

		if (DepLibSRTP::IsError(err))
		{
			MS_THROW_ERROR("srtp_create() failed: %s", DepLibSRTP::GetErrorString(err).c_str());
		}
	}

'''
s = s[:a] + ctor + s[b:]
c = s.index("\tbool SrtpSession::EncryptRtp(")
funcs = r'''	bool SrtpSession::EncryptRtp(const uint8_t** data, size_t* len)
	{
		MS_TRACE();

		if (*len + SRTP_MAX_TRAILER_LEN > EncryptBufferSize)
		{
			MS_WARN_TAG(srtp, "cannot encrypt RTP packet, size too big (%zu bytes)", *len);

			return false;
		}

		std::memcpy(EncryptBuffer, *data, *len);

		int encryptLen = static_cast<int>(*len);

		const srtp_err_status_t err =
		  srtp_protect(this->session, static_cast<void*>(EncryptBuffer), std::addressof(encryptLen));

		if (DepLibSRTP::IsError(err))
		{
			MS_WARN_TAG(srtp, "srtp_protect() failed: %s", DepLibSRTP::GetErrorString(err).c_str());

			return false;
		}

		*data = const_cast<const uint8_t*>(EncryptBuffer);
		*len  = static_cast<size_t>(encryptLen);

		return true;
	}

	bool SrtpSession::DecryptSrtp(uint8_t* data, size_t* len)
	{
		MS_TRACE();

		int decryptLen = static_cast<int>(*len);

		const srtp_err_status_t err =
		  srtp_unprotect(this->session, static_cast<void*>(data), std::addressof(decryptLen));

		if (DepLibSRTP::IsError(err))
		{
			MS_DEBUG_TAG(srtp, "srtp_unprotect() failed: %s", DepLibSRTP::GetErrorString(err).c_str());

			return false;
		}

		*len = static_cast<size_t>(decryptLen);

		return true;
	}

	bool SrtpSession::EncryptRtcp(const uint8_t** data, size_t* len)
	{
		MS_TRACE();

		if (*len + SRTP_MAX_TRAILER_LEN + 4 > EncryptBufferSize)
		{
			MS_WARN_TAG(srtp, "cannot encrypt RTCP packet, size too big (%zu bytes)", *len);

			return false;
		}

		std::memcpy(EncryptBuffer, *data, *len);

		int encryptLen = static_cast<int>(*len);

		const srtp_err_status_t err =
		  srtp_protect_rtcp(this->session, static_cast<void*>(EncryptBuffer), std::addressof(encryptLen));

		if (DepLibSRTP::IsError(err))
		{
			MS_WARN_TAG(srtp, "srtp_protect_rtcp() failed: %s", DepLibSRTP::GetErrorString(err).c_str());

			return false;
		}

		*data = const_cast<const uint8_t*>(EncryptBuffer);
		*len  = static_cast<size_t>(encryptLen);

		return true;
	}

	bool SrtpSession::DecryptSrtcp(uint8_t* data, size_t* len)
	{
		MS_TRACE();

		int decryptLen = static_cast<int>(*len);

		const srtp_err_status_t err =
		  srtp_unprotect_rtcp(this->session, static_cast<void*>(data), std::addressof(decryptLen));

		if (DepLibSRTP::IsError(err))
		{
			MS_DEBUG_TAG(srtp, "srtp_unprotect_rtcp() failed: %s", DepLibSRTP::GetErrorString(err).c_str());

			return false;
		}

		*len = static_cast<size_t>(decryptLen);

		return true;
	}
} // namespace RTC
'''
s = s[:c] + funcs
s = s.replace('#include "MediaSoupErrors.hpp"\n', '#include "MediaSoupErrors.hpp"\n#include <cstring>\n#include <memory>\n', 1)
open(p, "w").write(s)
p = f"{wd}/src/DepLibSRTP.cpp"
s = open(p).read()
s = re.sub(r'\n\s*\{ srtp_err_status_(buffer_small|cryptex_err),[^\n]*', '', s)
open(p, "w").write(s)
print("patched")
