"""Every LTI 1.3 URL the tool reads or asks for, spelled once (1EdTech LTI Core 1.3, Deep Linking 2.0,
AGS 2.0, NRPS 2.0). A test keeps these strings out of every other file of coursekit/ and autograder/."""
from __future__ import annotations

LTI = "https://purl.imsglobal.org/spec/lti/claim/"            # core claims: LTI + "roles", "context", ...
CUSTOM = LTI + "custom"                                         # the custom parameters (username, lab)
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"           # Deep Linking claims
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"   # context (course) roles

AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM, LINEITEM_READONLY = AGS_SCOPE + "lineitem", AGS_SCOPE + "lineitem.readonly"
RESULT_READONLY, SCORE = AGS_SCOPE + "result.readonly", AGS_SCOPE + "score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = (LINEITEM, LINEITEM_READONLY, RESULT_READONLY, SCORE, NRPS_SCOPE)     # what the tool registers for
