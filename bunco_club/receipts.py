"""Receipt photos of the supplies a club buys (issue 45): an upload taken only if Pillow reads it as
an image, within settings.RECEIPT_MAX_BYTES and RECEIPT_MAX_PIXELS, re-encoded as a JPEG without
any of its metadata (a phone photo's EXIF: the GPS position where it was taken, the phone's make,
the time) and stored through Django's default storage under MEDIA_ROOT, outside the static files
and never at a public URL: bunco_club/treasury_views.py serves it to those who may see the money.
"""

from __future__ import annotations

import hashlib
import io
import secrets
import warnings
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

from bunco_club.actions.refusals import ClubError
from bunco_club.models import RECEIPTS_FOLDER

# The longest side a stored receipt keeps: enough to read every line of a till's slip.
LONGEST_SIDE = 2400


@dataclass(frozen=True)
class StoredReceipt:
    name: str  # its name in the default storage
    sha256: str
    size: int


def clean_receipt(data: bytes) -> bytes:
    """The photo as a JPEG without metadata (upright, as its EXIF orientation showed it); ClubError
    when it is too large or not an image."""
    limit = int(settings.RECEIPT_MAX_BYTES)
    if len(data) > limit:
        raise ClubError(_("The receipt photo is too large: %(most)s MB at most.") % {"most": f"{limit / 1024 / 1024:g}"})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                probe.verify()  # a truncated or forged file fails here
            with Image.open(io.BytesIO(data)) as image:
                if image.width * image.height > int(settings.RECEIPT_MAX_PIXELS):
                    raise ClubError(_("The receipt photo has too many pixels: take it again at a lower resolution."))
                upright = ImageOps.exif_transpose(image)
                plain = upright.convert("RGB")
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError,
            Image.DecompressionBombWarning):
        raise ClubError(_("The receipt must be a photo (a JPEG, PNG or similar image).")) from None
    plain.thumbnail((LONGEST_SIDE, LONGEST_SIDE))
    # A new image from the pixels alone: no EXIF, no GPS, no ICC profile, no comment carried over.
    bare = Image.frombytes("RGB", plain.size, plain.tobytes())
    out = io.BytesIO()
    bare.save(out, format="JPEG", quality=85, optimize=True)
    return out.getvalue()


def store_receipt(data: bytes, *, club_id: int) -> StoredReceipt:
    """The cleaned photo stored in the default storage under a random name."""
    cleaned = clean_receipt(data)
    name = default_storage.save(f"{RECEIPTS_FOLDER}/{club_id}/{secrets.token_hex(16)}.jpg", ContentFile(cleaned))
    return StoredReceipt(name=name, sha256=hashlib.sha256(cleaned).hexdigest(), size=len(cleaned))


def open_receipt(name: str) -> bytes:
    with default_storage.open(name, "rb") as stored:
        return bytes(stored.read())
